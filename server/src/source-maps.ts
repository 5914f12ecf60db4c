// Stack traces of the server's own code point into its TypeScript, through the bundle's source
// maps; the ~1,600 source maps of node_modules are not read. `--enable-source-maps` read and kept
// them all: ~10 MB of the live heap, and 25–35 MB of peak RSS, for traces through libraries'
// sources (docs/performance.md, "The start script's V8 flags"). Modules compiled before this call
// get none, so each entry makes it first and then imports the rest.
import { setSourceMapsSupport } from 'node:module';

setSourceMapsSupport(true, { nodeModules: false, generatedCode: false });
