// Issue 35 in the web app, without a server: a file's review as the sender and the reviewer read it,
// the rules' line, and the decision dialog's request (a rejection needs a reason, said in words).
import { DEFAULT_REVIEW_RULES, type TFileReview } from '@portal/contract';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test/fake-api';
import { aFile } from '../../test/fixtures';
import { renderWithProviders } from '../../test/render';
import ReviewDialog from './components/ReviewDialog';
import { ReviewStatus } from './components/ReviewStatus';
import { rulesWords } from './rules-words';

const rejected: TFileReview = {
  state: 'rejected',
  reason: { code: 'wrong_study', text: 'Send the CT of the same visit.' },
  replaced_by: null,
  replaces: null,
  rules: [
    { rule: 'modalities', ok: false, message: '1 series is of a modality the project does not allow (only CT): series “T1” (MR) in mr.dcm.' },
    { rule: 'one_patient_per_study', ok: true, message: 'Each study holds one PatientID.' },
  ],
};

describe('a file’s review', () => {
  it('says a rejection with its reason and the reviewer’s words, and the rules that failed', () => {
    renderWithProviders(<ReviewStatus review={rejected} />);
    expect(screen.getByText('Rejected')).toBeInTheDocument();
    expect(screen.getByText('Rejected: Wrong study: Send the CT of the same visit.')).toBeInTheDocument();
    expect(screen.getByText(rejected.rules[0]!.message)).toBeInTheDocument();
    expect(screen.queryByText('Each study holds one PatientID.')).not.toBeInTheDocument();
  });

  it('shows nothing while the file is processed', () => {
    const { container } = renderWithProviders(<ReviewStatus review={{ ...rejected, state: null, reason: null, rules: [] }} />);
    expect(container).toBeEmptyDOMElement();
  });

  it('says the project’s rules in one line', () => {
    expect(rulesWords({ ...DEFAULT_REVIEW_RULES, modalities: ['CT'], patients_per_upload: { mode: 'exactly', count: 1 } })).toBe(
      'Arrival rules: modalities CT; exactly 1 patient per upload; one PatientID per study; consistent patients; no conflicting instances; de-identified where the project asks',
    );
  });
});

describe('the decision dialog', () => {
  it('asks for a reason before it rejects, then sends the reason and the words', async () => {
    const file = aFile({ id: 11, file: 'mr.dcm', review: { ...rejected, state: 'needs_attention', reason: null } });
    const api = fakeApi({ 'POST /study-petitions-files/11/review': { status: 200, data: { data: [{ ...file, review: rejected }] } } });
    const onClose = vi.fn();
    const { user } = renderWithProviders(<ReviewDialog file={file} onClose={onClose} />);
    expect(screen.getByRole('radio', { name: 'Reject' })).toBeChecked();
    await user.click(screen.getByRole('button', { name: 'Reject' }));
    expect(await screen.findByText('Choose a reason for the rejection: the sender reads it.')).toBeInTheDocument();
    await user.click(screen.getByRole('combobox', { name: 'Reason' }));
    await user.click(await screen.findByRole('option', { name: 'Wrong study' }));
    await user.type(screen.getByRole('textbox', { name: 'What the sender should do' }), 'Send the CT of the same visit.');
    await user.click(screen.getByRole('button', { name: 'Reject' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(api.calls.map((c) => c.data)).toEqual([{ decision: 'reject', reason: { code: 'wrong_study', text: 'Send the CT of the same visit.' } }]);
  });
});
