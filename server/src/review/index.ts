// The review of what arrives (issue 35): the rules, the decisions, the inbox; what the composition
// root wires and the events it announces.
export { ReviewRepository } from './review.repository.js';
export { ReviewService } from './review.service.js';
export { reviewRoutes } from './review.routes.js';
export type { ReviewEvents } from './review-events.js';
