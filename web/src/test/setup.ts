import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// findBy… and waitFor wait up to 6 s, not 1: a screen's first render also loads its lazy chunks, which
// took over a second on 2 shared cores under load (three screens' first tests failed so in a CI run);
// since the signed-in frame, its providers and the HTTP client load lazily too (issue 36), a sign-in
// then the projects is a chain of four, which took 3–4 s at a load average of 19.
configure({ asyncUtilTimeout: 6000 });

// Vitest runs without globals, so Testing Library cannot register its own cleanup.
afterEach(() => {
  cleanup();
  localStorage.clear();
});

// jsdom has no matchMedia; MUI asks it for the system colour scheme and for breakpoints.
if (!window.matchMedia) {
  window.matchMedia = (query: string): MediaQueryList =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList;
}
