import { REVIEW_STATE_LABELS, REVIEW_STATES, type TReviewItem, type TReviewState } from '@portal/contract';
import FactCheck from '@mui/icons-material/FactCheckOutlined';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Link from '@mui/material/Link';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { lazy, Suspense, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { AccessDenied } from '../../../components/AccessDenied';
import { PhoneCard, PhoneCardList } from '../../../components/PhoneCardList';
import { SearchField } from '../../../components/SearchField';
import { TablePager } from '../../../components/TablePager';
import { usePagination } from '../../../components/use-pagination';
import { SEARCH_DEBOUNCE_MS } from '../../../components/use-searched-pages';
import { formatUserError } from '../../../lib/error-mapping';
import { formatDate } from '../../../lib/format';
import { isReviewer } from '../../../lib/role-names';
import { useDebouncedValue } from '../../../lib/use-debounced-value';
import { useSignedInUser } from '../../auth';
import { useReviewInbox } from '../api/review-api';
import { ReviewStatus } from './ReviewStatus';

const ReviewDialog = lazy(() => import('./ReviewDialog'));

const TO_REVIEW = 'To review';
const STATES: Array<{ value: TReviewState | ''; label: string }> = [{ value: '', label: TO_REVIEW }, ...REVIEW_STATES.map((value) => ({ value, label: REVIEW_STATE_LABELS[value] }))];

/** One line of the rules' outcome: how many passed, or the first failure's sentence. */
function rulesLine(item: TReviewItem): string {
  const failed = item.review.rules.filter((r) => !r.ok);
  if (item.review.rules.length === 0) return 'No rule checked';
  if (failed.length === 0) return `All ${item.review.rules.length} rules pass`;
  return `${failed.length} of ${item.review.rules.length} rules failed`;
}

/** The reviewers' inbox (issue 35): uploads and deliveries of every project still to review, newest first. */
export default function ReviewInboxPage() {
  const user = useSignedInUser();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const pagination = usePagination();
  const [search, setSearch] = useState('');
  const q = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const [state, setState] = useState<TReviewState | ''>('');
  const [reviewing, setReviewing] = useState<TReviewItem | null>(null);
  const inbox = useReviewInbox({ q, state, page: pagination.page + 1, perPage: pagination.rowsPerPage });
  if (!isReviewer(user?.role)) return <AccessDenied />;
  const items = inbox.data?.data ?? [];
  const total = inbox.data?.page.total ?? 0;

  const reviewButton = (item: TReviewItem) =>
    item.review.state !== 'replaced' && (
      <Tooltip title="Accept or reject">
        <IconButton aria-label={`Review ${item.file}`} color="primary" onClick={() => setReviewing(item)}>
          <FactCheck />
        </IconButton>
      </Tooltip>
    );
  const where = (item: TReviewItem) => (
    <Typography variant="body2" color="text.secondary">
      <Link component={RouterLink} to={`/study/${item.project.id}`}>
        {item.project.name}
      </Link>
      {` · ${item.company.name}`}
    </Typography>
  );

  return (
    <>
      <Typography variant="h4" component="h1" sx={{ mb: 2 }}>
        {TO_REVIEW}
      </Typography>
      <Paper variant="outlined">
        <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 2, p: 2 }}>
          <Typography variant="body2" color="text.secondary" sx={{ flexGrow: 1 }}>
            {inbox.data ? `${total} ${total === 1 ? 'upload' : 'uploads'}` : ''}
          </Typography>
          <SearchField
            label="Search file, project or company"
            value={search}
            onChange={(value) => {
              setSearch(value);
              pagination.setPage(0);
            }}
            sx={{ flex: '1 1 220px', maxWidth: 360 }}
          />
          <TextField
            select
            size="small"
            label="Review"
            value={state}
            onChange={(event) => {
              setState(event.target.value as TReviewState | '');
              pagination.setPage(0);
            }}
            sx={{ minWidth: 180 }}
            slotProps={{ inputLabel: { shrink: true }, select: { displayEmpty: true } }}
          >
            {STATES.map((s) => (
              <MenuItem key={s.value} value={s.value}>
                {s.label}
              </MenuItem>
            ))}
          </TextField>
        </Box>
        {inbox.isFetching && <LinearProgress aria-label="Loading" />}
        {inbox.error ? (
          <Alert severity="error" sx={{ m: 2 }}>
            {formatUserError(inbox.error)}
          </Alert>
        ) : items.length === 0 && inbox.data ? (
          <Typography sx={{ px: 2, py: 4, textAlign: 'center' }} color="text.secondary">
            {q || state ? 'Nothing matches the search or the filter.' : 'Nothing to review: every upload has been accepted or rejected.'}
          </Typography>
        ) : phone ? (
          <PhoneCardList label={TO_REVIEW}>
            {items.map((item) => (
              <PhoneCard key={item.id} label={item.file} actions={reviewButton(item)}>
                <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{item.file}</Typography>
                {where(item)}
                <Typography variant="caption" color="text.secondary">{`${formatDate(item.created_at)} · ${rulesLine(item)}`}</Typography>
                <ReviewStatus review={item.review} />
              </PhoneCard>
            ))}
          </PhoneCardList>
        ) : (
          <TableContainer>
            <Table aria-label={TO_REVIEW} sx={{ minWidth: 760 }}>
              <TableHead>
                <TableRow>
                  <TableCell>File</TableCell>
                  <TableCell>Project</TableCell>
                  <TableCell>Date Created</TableCell>
                  <TableCell>Rules</TableCell>
                  <TableCell align="right">Actions</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {items.map((item) => (
                  <TableRow key={item.id} hover>
                    <TableCell sx={{ maxWidth: 360 }}>
                      <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{item.file}</Typography>
                      <ReviewStatus review={item.review} />
                    </TableCell>
                    <TableCell>{where(item)}</TableCell>
                    <TableCell>{formatDate(item.created_at)}</TableCell>
                    <TableCell>{rulesLine(item)}</TableCell>
                    <TableCell align="right">{reviewButton(item)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
        <TablePager count={total} pagination={pagination} />
      </Paper>
      {reviewing && (
        <Suspense fallback={null}>
          <ReviewDialog file={reviewing} onClose={() => setReviewing(null)} />
        </Suspense>
      )}
    </>
  );
}
