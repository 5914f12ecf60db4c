import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ScanStatus } from './ScanStatus';

describe('ScanStatus', () => {
  it('names the signature of an infected file and says what to do', () => {
    render(<ScanStatus scan={{ status: 'infected', signature: 'Win.Test.EICAR_HDB-1' }} />);
    expect(screen.getByLabelText('Virus scan: Infected')).toBeVisible();
    expect(screen.getByText(/found this file infected with Win\.Test\.EICAR_HDB-1\. It cannot be downloaded: delete it and ask the sender for a clean copy\./)).toBeVisible();
  });

  it('says a file waits for the scan, and that an unscanned one was not scanned, never that it is clean', () => {
    const { rerender } = render(<ScanStatus scan={{ status: 'waiting', signature: null }} />);
    expect(screen.getByLabelText('Virus scan: Waiting for the virus scan')).toBeVisible();
    rerender(<ScanStatus scan={{ status: 'not_scanned', signature: 'Not scanned: it is larger than the virus scanner is set to read.' }} />);
    expect(screen.getByLabelText('Virus scan: Not scanned')).toBeVisible();
    expect(screen.getByText(/larger than the virus scanner is set to read/)).toBeVisible();
    expect(screen.queryByText(/No virus found/)).toBeNull();
  });
});
