import { useEffect, useRef } from 'react';
import { PROGRESS_RESET_MS } from './progress';

/**
 * Spec §4: progress resets to 0 500 ms after an operation ends. The timer is cancelled if the
 * component goes away first, so no state is set on an unmounted component.
 */
export function useProgressReset(reset: () => void): () => void {
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return () => {
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(reset, PROGRESS_RESET_MS);
  };
}
