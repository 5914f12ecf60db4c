// What other features may use of auth: who is signed in.
export { SessionProvider } from './components/SessionProvider';
export { useSignedInUser } from './session-context';
