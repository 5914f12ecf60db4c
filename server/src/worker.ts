// `npm run worker`: processing alone (work.ts), with source maps for the server's own code only.
import './source-maps.js';

await import('./work.js');
