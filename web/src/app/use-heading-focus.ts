import { useEffect, useRef, type RefObject } from 'react';
import { useLocation } from 'react-router';

/** How long a screen may take to show its heading (a lazy page's first load) before focus stays put. */
const WAIT_MS = 3000;

/**
 * After a move to another screen inside the app, focus goes to that screen's h1 (issue 36), as a
 * page load would start a screen reader at the top: without it focus falls to the page's body and
 * the next Tab starts in the top bar. The first screen keeps its own focus (a form's autofocus).
 * Whatever the user focuses meanwhile wins.
 */
export function useHeadingFocus(container: RefObject<HTMLElement | null>) {
  const { pathname } = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return undefined;
    }
    const started = performance.now();
    const before = document.activeElement;
    let frame = 0;
    const look = () => {
      const moved = document.activeElement !== before && document.activeElement !== document.body;
      if (moved) return;
      const heading = container.current?.querySelector<HTMLElement>('h1');
      if (heading) {
        if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
        heading.focus();
        return;
      }
      if (performance.now() - started < WAIT_MS) frame = requestAnimationFrame(look);
    };
    frame = requestAnimationFrame(look);
    return () => cancelAnimationFrame(frame);
  }, [pathname, container]);
}
