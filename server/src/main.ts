// `npm start`: the API and the web app (serve.ts), with source maps for the server's own code only.
import './source-maps.js';

await import('./serve.js');
