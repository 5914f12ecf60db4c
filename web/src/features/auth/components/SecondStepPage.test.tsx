import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { appRoutes } from '../../../app/router';
import { fakeApi } from '../../../test/fake-api';
import { aProject, aUser } from '../../../test/fixtures';
import { renderAt } from '../../../test/render';

const { company, ...loginUser } = aUser();
const CHALLENGE = 'c'.repeat(43);
const due = (enrolment = false) => ({
  status: 401,
  data: { message: 'Enter the 6-digit code from your authenticator app', second_factor_required: true, enrolment_required: enrolment, challenge: CHALLENGE, expires_at: '2026-11-29T05:05:00.000Z' },
});
const WRONG = 'That code is not right. Enter the 6-digit code your authenticator app shows now (each code works once).';
const EXPIRED = 'This sign-in has expired. Enter your username and password again.';
const signedInApi = {
  'GET /company/7': { status: 200, data: { data: [company] } },
  'GET /study-petitions': { status: 200, data: { data: [aProject()] } },
};

async function passwordStep() {
  const rendered = renderAt(appRoutes, '/');
  await rendered.user.type(await screen.findByLabelText('Username'), 'ada');
  await rendered.user.type(screen.getByLabelText('Password'), 'Secret-1');
  await rendered.user.click(screen.getByRole('button', { name: 'Log in' }));
  return rendered;
}

describe('the second step of a two-factor sign-in', () => {
  it('asks for the code, shows the server’s words for a wrong one, and signs in with the right one', async () => {
    let tries = 0;
    const api = fakeApi({
      ...signedInApi,
      'POST /login': due(),
      'POST /login/second-factor': () => ((tries += 1) === 1 ? { status: 422, data: { message: WRONG } } : { status: 200, data: { token: 'tok-2', user: loginUser } }),
    });
    const { user, router } = await passwordStep();
    expect(await screen.findByRole('heading', { name: 'Two-factor sign-in' })).toBeVisible();
    expect(screen.getByText('Enter the 6-digit code from your authenticator app')).toBeVisible();
    expect(localStorage.getItem('token')).toBeNull();

    const field = screen.getByRole('textbox', { name: '6-digit code' });
    await user.type(field, '12a3456');
    expect(field).toHaveValue('123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText(WRONG)).toBeVisible();
    await user.type(field, '654321');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('heading', { name: 'Projects' })).toBeVisible();
    expect(router.state.location.pathname).toBe('/home');
    expect(localStorage.getItem('token')).toBe('tok-2');
    const sent = api.calls.filter((c) => c.url === '/login/second-factor').map((c) => c.data);
    expect(sent).toEqual([
      { challenge: CHALLENGE, code: '123456' },
      { challenge: CHALLENGE, code: '654321' },
    ]);
  });

  it('takes a recovery code instead, and goes back to the password with the reason when the sign-in expired', async () => {
    fakeApi({ ...signedInApi, 'POST /login': due(), 'POST /login/second-factor': { status: 401, data: { message: EXPIRED } } });
    const { user } = await passwordStep();
    await user.click(await screen.findByRole('button', { name: 'Use a recovery code instead' }));
    await user.type(screen.getByRole('textbox', { name: 'Recovery code' }), 'abcde-fghjk');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText(EXPIRED)).toBeVisible();
    expect(screen.getByRole('button', { name: 'Log in' })).toBeVisible();
  });

  it('leads a user whose company requires it through setting it up, then shows the recovery codes once', async () => {
    const codes = Array.from({ length: 10 }, (_, i) => `code${i}-xxxxx`);
    fakeApi({
      ...signedInApi,
      'POST /login': due(true),
      'POST /login/second-factor/enrolment': { status: 200, data: { data: [{ secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', otpauth_url: 'otpauth://totp/x', qr_code: 'data:image/png;base64,AAAA' }] } },
      'POST /login/second-factor/enrolment/confirm': { status: 200, data: { token: 'tok-3', user: loginUser, recovery_codes: codes } },
    });
    const { user, router } = await passwordStep();
    expect(await screen.findByRole('heading', { name: 'Set up two-factor sign-in' })).toBeVisible();
    expect(await screen.findByRole('img', { name: 'QR code to scan with your authenticator app' })).toBeVisible();
    expect(screen.getByLabelText('Key to enter by hand')).toHaveTextContent('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');
    await user.type(screen.getByRole('textbox', { name: '6-digit code' }), '123456');
    await user.click(screen.getByRole('button', { name: 'Turn on two-factor sign-in' }));
    expect(await screen.findByRole('list', { name: 'Recovery codes' })).toBeVisible();
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual(codes);
    expect(localStorage.getItem('token')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Continue to the portal' }));
    expect(await screen.findByRole('heading', { name: 'Projects' })).toBeVisible();
    expect(router.state.location.pathname).toBe('/home');
  });
});
