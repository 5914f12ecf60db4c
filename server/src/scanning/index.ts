export { ClamdScanner, NOT_SCANNED_REFUSED, NOT_SCANNED_TOO_LARGE, ScannerUnavailable, parseReply, type ClamdAddress, type ScanSource, type ScanVerdict, type VirusScanner } from './clamd-client.js';
