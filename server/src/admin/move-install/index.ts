export { moveInstall, type MoveOptions } from './move-install.js';
export { MoveError } from './move-error.js';
export { verifyObjects } from './verify-objects.js';
