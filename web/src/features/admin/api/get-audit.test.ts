import { describe, expect, it } from 'vitest';
import { auditParams, NO_AUDIT_FILTERS } from './get-audit';

describe('auditParams', () => {
  it('sends nothing for no filters', () => {
    expect(auditParams(NO_AUDIT_FILTERS)).toEqual({});
  });

  it('turns days of the local calendar into instants, both days included', () => {
    const params = auditParams({ ...NO_AUDIT_FILTERS, from: '2026-03-01', to: '2026-03-31' });
    expect(params.from).toBe(new Date(2026, 2, 1).toISOString());
    // The server's `to` is "before": the start of the day after the last one shown.
    expect(params.to).toBe(new Date(2026, 3, 1).toISOString());
  });

  it('trims the text filters and leaves out empty ones and unreadable days', () => {
    expect(auditParams({ from: '2026-13-45x', to: '', actor: ' ada ', action: 'login.', object: '  ' })).toEqual({ actor: 'ada', action: 'login.' });
  });
});
