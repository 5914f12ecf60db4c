import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useSnackbar } from 'notistack';
import { describe, expect, it } from 'vitest';
import { AppProviders, SNACKBAR_SETTINGS } from './AppProviders';
import { BREAKPOINTS, MODE_STORAGE_KEY, theme } from './theme';

function Spammer() {
  const { enqueueSnackbar } = useSnackbar();
  return <button onClick={() => [1, 2, 3, 4, 5].forEach((n) => enqueueSnackbar(`toast ${n}`))}>spam</button>;
}

describe('app providers', () => {
  it('shows at most 3 toasts at once, bottom left, 5 s, 225/195 ms transitions', async () => {
    expect(SNACKBAR_SETTINGS).toEqual({
      maxSnack: 3,
      autoHideDuration: 5000,
      anchorOrigin: { vertical: 'bottom', horizontal: 'left' },
      transitionDuration: { enter: 225, exit: 195 },
    });
    render(
      <AppProviders>
        <Spammer />
      </AppProviders>,
    );
    await userEvent.click(screen.getByRole('button', { name: 'spam' }));
    expect(await screen.findByText('toast 1')).toBeInTheDocument();
    expect(screen.getAllByText(/^toast \d$/)).toHaveLength(3);
  });

  it('uses the spec breakpoints and the "mode" storage key', () => {
    expect(theme.breakpoints.values).toEqual({ xs: 0, sm: 600, md: 900, lg: 1200, xl: 1536 });
    expect(BREAKPOINTS).toEqual(theme.breakpoints.values);
    expect(MODE_STORAGE_KEY).toBe('mode');
  });

  it('follows the system by default and a stored choice under "mode"', async () => {
    const view = render(
      <AppProviders>
        <p>page</p>
      </AppProviders>,
    );
    // The jsdom "system" prefers light (matchMedia stub), so the default renders light.
    await waitFor(() => expect(document.documentElement).toHaveAttribute('data-color-scheme', 'light'));
    view.unmount();
    localStorage.setItem('mode', 'dark');
    render(
      <AppProviders>
        <p>page</p>
      </AppProviders>,
    );
    await waitFor(() => expect(document.documentElement).toHaveAttribute('data-color-scheme', 'dark'));
  });
});
