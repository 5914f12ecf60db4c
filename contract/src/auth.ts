// Signing in with a password; single sign-on is in sso.ts.
import { z } from './zod.js';
import { ZUser } from './users.js';

export const ZLoginRequest = z.strictObject({
  username: z.string().min(1).max(255),
  password: z.string().min(1).max(1024),
});
export type TLoginRequest = z.infer<typeof ZLoginRequest>;

export const ZLoginResponse = z.object({ token: z.string(), user: ZUser });
export type TLoginResponse = z.infer<typeof ZLoginResponse>;
