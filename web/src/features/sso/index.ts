// Single sign-on with a company's identity provider: the login screen's part, and the SysAdmin's
// settings of a company (mounted in the admin companies screen).
export { CompanySsoButton } from './components/CompanySsoButton';
export { SsoSignIn } from './components/SsoSignIn';
