import { onTestFinished } from 'vitest';

/**
 * Makes MUI's breakpoint queries answer as a window of this width would (jsdom has no layout),
 * for the rest of the test.
 */
export function viewportWidth(width: number): void {
  const original = window.matchMedia.bind(window);
  window.matchMedia = (query: string) => {
    const max = /max-width:\s*([\d.]+)px/.exec(query);
    const min = /min-width:\s*([\d.]+)px/.exec(query);
    const matches = (!max || width <= Number(max[1])) && (!min || width >= Number(min[1]));
    return { ...original(query), matches, media: query };
  };
  onTestFinished(() => {
    window.matchMedia = original;
  });
}
