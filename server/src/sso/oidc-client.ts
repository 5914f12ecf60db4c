// The portal as an OpenID Connect client (openid-client): discovery of a company's provider, the
// authorisation URL with PKCE, state and nonce, and the code exchange whose id token is checked
// for its issuer, audience, signature, expiry and nonce before any claim is read; userinfo is asked
// only when the id token names neither an e-mail nor a username.
import { createHash } from 'node:crypto';
import type * as Oidc from 'openid-client';
import { issuerAllowed } from '@portal/contract';

export interface ProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** Who the provider says signed in: only claims of a verified id token. */
export interface Identity {
  subject: string;
  email: string | undefined;
  preferredUsername: string | undefined;
  givenName: string | undefined;
  familyName: string | undefined;
  name: string | undefined;
}

/** The provider answered with an error of its own (the user cancelled, or was refused there). */
export class ProviderRefusal extends Error {}

const CACHE_MS = 10 * 60_000;
const TIMEOUT_SECONDS = 10;
export const SCOPE = 'openid email profile';

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/**
 * openid-client is loaded at the first sign-in through a provider: most portals never use single
 * sign-on, and the server's memory bound (docs/processing.md) has no room for what it does not use.
 */
let library: Promise<typeof Oidc> | undefined;
export function loadOidc(): Promise<typeof Oidc> {
  library ??= import('openid-client');
  return library;
}

export class OidcClients {
  /** Discovery answers per provider and client, so a sign-in does not fetch them twice. */
  private readonly cache = new Map<string, { config: Promise<Oidc.Configuration>; until: number }>();

  configuration(settings: ProviderSettings): Promise<Oidc.Configuration> {
    const key = createHash('sha256').update(JSON.stringify([settings.issuer, settings.clientId, settings.clientSecret])).digest('hex');
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return cached.config;
    const config = discover(settings);
    this.cache.set(key, { config, until: Date.now() + CACHE_MS });
    config.catch(() => this.cache.delete(key));
    return config;
  }

  async authorizationUrl(settings: ProviderSettings, checks: { redirectUri: string; state: string; nonce: string; verifier: string }): Promise<string> {
    const config = await this.configuration(settings);
    const oidc = await loadOidc();
    return oidc
      .buildAuthorizationUrl(config, {
        redirect_uri: checks.redirectUri,
        scope: SCOPE,
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(checks.verifier),
        code_challenge_method: 'S256',
      })
      .toString();
  }

  /**
   * Exchanges the code the provider sent back (`callbackUrl`: the redirect URI with the provider's
   * parameters) and answers the verified id token's claims. Throws ProviderRefusal when the
   * provider itself answered an error, anything else when the answer does not hold.
   */
  async exchange(settings: ProviderSettings, callbackUrl: URL, checks: { state: string; nonce: string; verifier: string }): Promise<Identity> {
    const config = await this.configuration(settings);
    const oidc = await loadOidc();
    let tokens;
    try {
      tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.verifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      if (error instanceof oidc.AuthorizationResponseError) throw new ProviderRefusal(error.error);
      throw error;
    }
    const idToken = tokens.claims();
    if (!idToken) throw new Error('the provider answered no id token');
    let claims: Record<string, unknown> = idToken;
    // Some providers keep e-mail and username out of the id token and answer them at userinfo only
    // (whose subject openid-client checks against the id token's).
    if (!text(idToken.email) && !text(idToken.preferred_username) && tokens.access_token) {
      claims = { ...(await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub)), ...idToken };
    }
    const emailVerified = claims.email_verified !== false;
    return {
      subject: idToken.sub,
      // An address the provider itself says it has not verified names nobody.
      email: emailVerified ? text(claims.email) : undefined,
      preferredUsername: text(claims.preferred_username),
      givenName: text(claims.given_name),
      familyName: text(claims.family_name),
      name: text(claims.name),
    };
  }
}

async function discover(settings: ProviderSettings): Promise<Oidc.Configuration> {
  if (!issuerAllowed(settings.issuer)) throw new Error('the issuer is not an https address');
  const local = new URL(settings.issuer).protocol === 'http:';
  const oidc = await loadOidc();
  return oidc.discovery(new URL(settings.issuer), settings.clientId, settings.clientSecret, oidc.ClientSecretBasic(settings.clientSecret), {
    timeout: TIMEOUT_SECONDS,
    // issuerAllowed admits plain http on the loopback address only (a provider under test).
    ...(local ? { execute: [oidc.allowInsecureRequests] } : {}),
  });
}
