import type { FormEvent, KeyboardEvent } from 'react';

/**
 * A password form's submit and Enter handlers. Its submit button stays disabled until the form is
 * valid (spec §5), which would also block Enter; Enter still runs the ordered checks, so the user
 * learns what is missing. Enter on a button keeps the button's own meaning.
 */
export function formSubmitHandlers(submit: () => Promise<void>) {
  return {
    onSubmit: (event: FormEvent) => {
      event.preventDefault();
      void submit();
    },
    onKeyDown: (event: KeyboardEvent) => {
      if (event.key !== 'Enter' || (event.target as HTMLElement).tagName === 'BUTTON') return;
      event.preventDefault();
      void submit();
    },
  };
}
