// A real OpenID provider (oidc-provider) on a loopback port, for the single sign-on suite: the one
// the server's own single sign-on tests start, so both suites sign in against the same provider.
export { startTestProvider, type TestAccount, type TestClient, type TestProvider } from '../../server/test/oidc-provider.js';
