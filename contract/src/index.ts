// The API's shapes (DESIGN §4), shared by the server's validation and the web app's types and its
// parsing of answers; one file per resource.
export * from './common.js';
export * from './users.js';
export * from './auth.js';
export * from './companies.js';
export * from './passwords.js';
export * from './projects.js';
export * from './files.js';
export * from './duplicates.js';
export * from './file-contents.js';
export * from './studies.js';
export * from './deliveries.js';
export * from './downloads.js';
export * from './upload-settings.js';
export * from './audit.js';
export * from './sso.js';
export * from './delivery-bundle.js';
export * from './deidentification.js';
export * from './deidentification-report.js';
export * from './notifications.js';
export * from './file-review.js';
export * from './review.js';
export * from './api-tokens.js';
export * from './two-factor.js';
