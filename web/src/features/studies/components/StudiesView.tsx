import type { TStudySort } from '@portal/contract';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { useEffect, useRef, useState } from 'react';
import { SearchField } from '../../../components/SearchField';
import { TablePager } from '../../../components/TablePager';
import { useSearchedPages } from '../../../components/use-searched-pages';
import { formatUserError } from '../../../lib/error-mapping';
import { useProjectStudies } from '../api/get-project-studies';
import { count, DEFAULT_STUDY_SORT, nextSort, SORT_CHOICES, type StudySort } from '../study-format';
import { StudiesEmptyState } from './StudiesEmptyState';
import { StudiesTable } from './StudiesTable';
import { StudyCards } from './StudyCards';

export interface StudiesViewProps {
  projectId: number;
  /** Any upload of the project still pending or processing: its studies are still growing. */
  processing: boolean;
  onUpload: () => void;
}

/** The project's studies across its uploads and deliveries, searched, sorted and paged by the server. */
export function StudiesView({ projectId, processing, onUpload }: StudiesViewProps) {
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const { pagination, search, setSearch, q } = useSearchedPages();
  const [sort, setSort] = useState<StudySort>(DEFAULT_STUDY_SORT);
  const studiesQuery = useProjectStudies(
    projectId,
    { q, sort: sort.key, order: sort.order, page: pagination.page + 1, perPage: pagination.rowsPerPage },
    processing,
  );
  const { refetch } = studiesQuery;
  useRefreshWhenProcessingEnds(processing, refetch);

  const { setPage } = pagination;
  const changeSort = (next: StudySort) => {
    setSort(next);
    setPage(0);
  };

  const answer = studiesQuery.data;
  const total = answer?.page.total ?? 0;
  // A page left empty (uploads deleted meanwhile) falls back to the last page that has studies.
  const pageLeftEmpty = answer !== undefined && answer.data.length === 0 && total > 0 && !studiesQuery.isPlaceholderData;
  useEffect(() => {
    if (pageLeftEmpty) setPage(Math.max(0, Math.ceil(total / pagination.rowsPerPage) - 1));
  }, [pageLeftEmpty, total, pagination.rowsPerPage, setPage]);
  const error = studiesQuery.error ? formatUserError(studiesQuery.error) : null;

  return (
    <Paper variant="outlined">
      <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1, p: 2 }}>
        <Typography variant="h6" component="h2">
          Studies
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ flexGrow: 1 }}>
          {answer ? `(${count(total, 'study', 'studies')})` : ''}
        </Typography>
        <SearchField
          label="Search studies"
          placeholder="Patient, ID or description"
          value={search}
          onChange={setSearch}
          sx={{ width: { xs: '100%', sm: 300 } }}
        />
        {phone && (
          <TextField
            select
            size="small"
            label="Sort by"
            value={`${sort.key}:${sort.order}`}
            onChange={(event) => {
              const choice = SORT_CHOICES.find((c) => `${c.key}:${c.order}` === event.target.value);
              if (choice) changeSort({ key: choice.key, order: choice.order });
            }}
            sx={{ width: '100%' }}
          >
            {SORT_CHOICES.map((choice) => (
              <MenuItem key={`${choice.key}:${choice.order}`} value={`${choice.key}:${choice.order}`}>
                {choice.label}
              </MenuItem>
            ))}
          </TextField>
        )}
      </Box>
      {/* The previous page stays on screen, under this bar, while the next search or page loads. */}
      <Box sx={{ height: 4 }}>{studiesQuery.isFetching && answer && <LinearProgress aria-label="Loading studies" />}</Box>
      {error && (
        <Alert
          severity="error"
          sx={{ m: 2 }}
          action={
            <Button color="inherit" size="small" onClick={() => void refetch()}>
              Retry
            </Button>
          }
        >
          {error}
        </Alert>
      )}
      {studiesQuery.isPending && !error && (
        <Box sx={{ p: 2 }} aria-label="Loading studies" role="progressbar">
          {[0, 1, 2].map((row) => (
            <Skeleton key={row} height={48} />
          ))}
        </Box>
      )}
      {answer && answer.data.length === 0 && total === 0 && <StudiesEmptyState search={q} onUpload={onUpload} />}
      {answer && answer.data.length > 0 &&
        (phone ? (
          <StudyCards projectId={projectId} studies={answer.data} />
        ) : (
          <StudiesTable projectId={projectId} studies={answer.data} sort={sort} onSort={(key: TStudySort) => changeSort(nextSort(sort, key))} />
        ))}
      {answer && total > 0 && <TablePager count={total} pagination={pagination} />}
    </Paper>
  );
}

/** The last poll may read the studies just before processing ends; one more read catches its end. */
function useRefreshWhenProcessingEnds(processing: boolean, refresh: () => Promise<unknown>): void {
  const was = useRef(processing);
  useEffect(() => {
    if (was.current && !processing) void refresh();
    was.current = processing;
  }, [processing, refresh]);
}
