// Every schema of the contract is built with this `z`: zod decides at each object schema's
// construction whether to compile a parser with `new Function`, and its probe for that is reported
// as a Content-Security-Policy violation by a browser whose policy forbids eval (the portal's does,
// issue 36). In a browser the contract therefore builds its schemas without that JIT; the server
// (no `document`) keeps it.
import { z } from 'zod';

if ('document' in globalThis) z.config({ jitless: true });

export { z };
