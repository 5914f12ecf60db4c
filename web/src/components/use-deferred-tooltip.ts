import type TooltipComponent from '@mui/material/Tooltip';
import { useEffect, useRef, useState, type FocusEvent } from 'react';

type Tooltip = typeof TooltipComponent;

/** After this long on the page the tooltip loads anyway, before anyone points at the button. */
const IDLE_LOAD_MS = 1500;

let loaded: Tooltip | null = null;
let loading: Promise<Tooltip> | null = null;

function loadTooltip(): Promise<Tooltip> {
  loading ??= import('@mui/material/Tooltip').then((m) => (loaded = m.default));
  return loading;
}

/**
 * MUI's Tooltip for a button of the sign-in screen, loaded after the screen is usable: it brings
 * Popper.js, which the first load would otherwise send for one hover text (issue 36). It loads
 * when the button is pointed at or focused, or after a moment on the page; until then the button
 * is there without it (its aria-label names it). Wrapping the button remounts it, so a button that
 * had the keyboard focus gets it back.
 */
export function useDeferredTooltip(): {
  Tooltip: Tooltip | null;
  buttonProps: { ref: (element: HTMLButtonElement | null) => void; onPointerEnter: () => void; onFocus: (event: FocusEvent) => void };
} {
  const [Tooltip, setTooltip] = useState<Tooltip | null>(() => loaded);
  const hadFocus = useRef(false);

  useEffect(() => {
    if (Tooltip) return;
    let live = true;
    const timer = window.setTimeout(() => void want(), IDLE_LOAD_MS);
    function want() {
      void loadTooltip().then((component) => live && setTooltip(() => component));
    }
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [Tooltip]);

  const request = () => void loadTooltip().then((component) => setTooltip(() => component));
  return {
    Tooltip,
    buttonProps: {
      ref: (element) => {
        if (element && hadFocus.current) {
          hadFocus.current = false;
          element.focus();
        }
      },
      onPointerEnter: request,
      onFocus: () => {
        if (Tooltip) return;
        hadFocus.current = true;
        request();
      },
    },
  };
}
