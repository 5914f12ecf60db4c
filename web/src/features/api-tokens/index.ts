// What other features show of API tokens: the administration's tab. The avatar menu's dialog is
// loaded by the app frame on demand (components/ApiTokensDialog).
export { ApiTokensPanel } from './components/ApiTokensPanel';
