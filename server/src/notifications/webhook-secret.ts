// An endpoint's signing secret: made here, shown once, kept sealed to its endpoint's row.
import { randomBytes } from 'node:crypto';

/** Standard Webhooks' form: whsec_ and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** What a sealed secret is bound to (SecretBox.sealBound): a copy moved to another endpoint does not open. */
export function webhookSecretBinding(endpointId: number): string {
  return `webhook:${endpointId}`;
}
