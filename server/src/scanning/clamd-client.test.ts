import { describe, expect, it } from 'vitest';
import { NOT_SCANNED_REFUSED, NOT_SCANNED_TOO_LARGE, parseReply, ScannerUnavailable } from './clamd-client.js';

describe("clamd's INSTREAM replies", () => {
  it('reads OK as clean and FOUND as infected with the signature', () => {
    expect(parseReply('stream: OK\0')).toEqual({ status: 'clean' });
    expect(parseReply('stream: Win.Test.EICAR_HDB-1 FOUND\0')).toEqual({ status: 'infected', signature: 'Win.Test.EICAR_HDB-1' });
  });

  it('never reads what clamd did not read in full as clean', () => {
    // With AlertExceedsMax yes (docs/deployment.md), a file over MaxFileSize/MaxScanSize is named so.
    expect(parseReply('stream: Heuristics.Limits.Exceeded.MaxFileSize FOUND\0')).toEqual({ status: 'not_scanned', reason: NOT_SCANNED_TOO_LARGE });
    expect(parseReply('INSTREAM size limit exceeded. ERROR\0')).toEqual({ status: 'not_scanned', reason: NOT_SCANNED_TOO_LARGE });
    expect(parseReply('stream: Can\'t allocate memory ERROR\0')).toEqual({ status: 'not_scanned', reason: NOT_SCANNED_REFUSED });
  });

  it('takes an answer it does not know for a scanner that is not working', () => {
    expect(() => parseReply('UNKNOWN COMMAND\0')).toThrow(ScannerUnavailable);
  });
});
