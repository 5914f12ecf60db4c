// Single sign-on with a company's identity provider: the login screen's part, and the SysAdmin's
// settings of a company (mounted in the admin companies screen).
export { LazyCompanySsoButton as CompanySsoButton } from './components/LazyCompanySsoButton';
export { LazySsoSignIn as SsoSignIn } from './components/LazySsoSignIn';
