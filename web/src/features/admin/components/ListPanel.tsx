import Box from '@mui/material/Box';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { useEffect, type ReactNode } from 'react';
import { LoadStates } from '../../../components/LoadStates';
import { TablePager } from '../../../components/TablePager';
import type { usePagination } from '../../../components/use-pagination';
import { adminErrorText } from '../admin-errors';

interface ListState {
  data: { page: { total: number }; data: unknown[] } | undefined;
  error: unknown;
  isPending: boolean;
  isFetching: boolean;
  isPlaceholderData: boolean;
  refetch: () => Promise<unknown>;
}

interface ListPanelProps {
  title: string;
  /** '3 users': the server's total, shown beside the title. */
  countText: (total: number) => string;
  /** The search box, filters and the panel's main button, right of the title. */
  tools: ReactNode;
  list: ListState;
  pagination: ReturnType<typeof usePagination>;
  /** Said when nothing matches (or nothing exists yet). */
  emptyText: string;
  children: ReactNode;
}

/**
 * The frame every administration list shares with the studies view: a title with the count, the
 * tools, a bar while the next page loads (the last one stays), the §8 error with Retry, a
 * skeleton, the rows (or `emptyText`), and the 5/10/25 pager.
 */
export function ListPanel({ title, countText, tools, list, pagination, emptyText, children }: ListPanelProps) {
  const answer = list.data;
  const total = answer?.page.total ?? 0;
  const { setPage, rowsPerPage } = pagination;
  // A page emptied meanwhile (requests answered by someone else) falls back to the last one with rows.
  const pageLeftEmpty = answer !== undefined && answer.data.length === 0 && total > 0 && !list.isPlaceholderData;
  useEffect(() => {
    if (pageLeftEmpty) setPage(Math.max(0, Math.ceil(total / rowsPerPage) - 1));
  }, [pageLeftEmpty, total, rowsPerPage, setPage]);

  return (
    <Paper variant="outlined">
      <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1, p: 2 }}>
        <Typography variant="h6" component="h2">
          {title}
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ flexGrow: 1 }}>
          {answer ? `(${countText(total)})` : ''}
        </Typography>
        {tools}
      </Box>
      <Box sx={{ height: 4 }}>{list.isFetching && answer && <LinearProgress aria-label={`Loading ${title.toLowerCase()}`} />}</Box>
      <LoadStates
        error={list.error}
        errorText={adminErrorText}
        onRetry={() => void list.refetch()}
        pending={list.isPending}
        loadingLabel={`Loading ${title.toLowerCase()}`}
        rows={3}
      />
      {answer && answer.data.length === 0 && total === 0 && (
        <Typography color="text.secondary" sx={{ p: 3, textAlign: 'center' }}>
          {emptyText}
        </Typography>
      )}
      {answer && answer.data.length > 0 && children}
      {answer && total > 0 && <TablePager count={total} pagination={pagination} />}
    </Paper>
  );
}

/** '1 user', '3 users'. */
export function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
