// The OHIF image viewer the portal serves under /viewer/ (docs/web.md, "The image viewer").
export { viewerDistBeside, viewerRoutes, type ViewerOptions } from './viewer.routes.js';
export { VIEWER_BASE } from './prepare.js';
