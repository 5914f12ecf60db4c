import Box from '@mui/material/Box';
import type { ReactNode } from 'react';

/** Below the `sm` breakpoint a table's rows are cards: a list whose items keep their actions in view. */
export function PhoneCardList({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box component="ul" aria-label={label} sx={{ listStyle: 'none', m: 0, p: 0 }}>
      {children}
    </Box>
  );
}

interface PhoneCardProps {
  label: string;
  /** Before the text, e.g. a selection checkbox. */
  start?: ReactNode;
  children: ReactNode;
  actions: ReactNode;
}

/** One row as a card: what the row says, wrapping rather than scrolling sideways, and its actions beside it. */
export function PhoneCard({ label, start, children, actions }: PhoneCardProps) {
  return (
    <Box
      component="li"
      aria-label={label}
      sx={{ display: 'flex', alignItems: 'flex-start', gap: 1, px: 2, py: 1.5, borderBottom: 1, borderColor: 'divider' }}
    >
      {start}
      <Box sx={{ flex: 1, minWidth: 0 }}>{children}</Box>
      <Box sx={{ display: 'flex', flexShrink: 0 }}>{actions}</Box>
    </Box>
  );
}
