// The API routes that take no bearer at all (`config: { public: true }`), written out here apart
// from the server's own marks: the OpenAPI test checks the document names no 401 on them, the API
// token test that a token there is neither needed nor checked.

/** `GET /dl/{ticket}`: a download link is its own authorisation (files/download-links.service.ts). */
export const PUBLIC_ROUTES: readonly string[] = [
  'POST /login',
  // The second step of a sign-in: the password was right, no session exists yet (two-factor/).
  'POST /login/second-factor',
  'POST /login/second-factor/enrolment',
  'POST /login/second-factor/enrolment/confirm',
  'GET /health',
  'GET /ready',
  'GET /openapi.json',
  'GET /dl/{ticket}',
  'POST /password/set',
  'POST /password/link',
  'POST /password/forgot',
  // tus discovery: a client learns what the server speaks before it signs in (tus/tus.routes.ts).
  'OPTIONS /uploads',
  // Single sign-on: the browser is not signed in yet (sso/sso.routes.ts).
  'POST /sso/discover',
  'GET /sso/{companyId}/start',
  'GET /sso/callback',
  'POST /sso/complete',
];
