// The upload feature's public face: other features import this file, never its internals.
export { default as UploadDialog } from './components/UploadDialog';
