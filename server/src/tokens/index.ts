// Personal API tokens (issue 37, item 1): their management, and their use as a bearer.
export { ApiTokenBearer } from './api-token.bearer.js';
export { ApiTokensRepository } from './tokens.repository.js';
export { ApiTokensService } from './tokens.service.js';
export { tokensRoutes } from './tokens.routes.js';
export { TOKEN_ROUTES } from './token-scopes.js';
