import KeyOff from '@mui/icons-material/KeyOffOutlined';
import IconButton from '@mui/material/IconButton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import type { TApiToken } from '@portal/contract';
import { useState } from 'react';
import { LoadStates } from '../../../components/LoadStates';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { PhoneCard, PhoneCardList } from '../../../components/PhoneCardList';
import { useNotify } from '../../../components/use-notify';
import { formatUserError } from '../../../lib/error-mapping';
import { formatDate } from '../../../lib/format';
import { useApiTokens, useRevokeApiToken } from '../api/api-tokens';
import { expiryText, lastUsedText, projectsText, SCOPE_LABELS } from '../token-words';

interface ApiTokensListProps {
  /** 'me': one's own; 'all': those an administrator answers for, with whose each is. */
  owner: 'me' | 'all';
  /** What the list says when there is none. */
  empty: string;
  /** Names a row's company (a SysAdmin's view of everyone's tokens). */
  companyName?: (id: number) => string;
}

/** Tokens as a table (cards on a phone): name, scope, projects, expiry, last use, created; each revocable after a confirmation. */
export function ApiTokensList({ owner, empty, companyName }: ApiTokensListProps) {
  const list = useApiTokens(owner);
  const revoke = useRevokeApiToken();
  const notify = useNotify();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const [revoking, setRevoking] = useState<TApiToken | null>(null);
  const tokens = list.data?.data ?? [];
  const whose = (token: TApiToken) => (companyName ? `${token.user.username} (${companyName(token.user.company_id)})` : token.user.username);

  const confirmRevoke = async () => {
    if (!revoking) return;
    try {
      await revoke.mutateAsync(revoking.id);
      notify.success('Token revoked');
    } catch (failure) {
      notify.error(formatUserError(failure));
    }
    setRevoking(null);
  };
  const actions = (token: TApiToken) => (
    <Tooltip title="Revoke">
      <IconButton aria-label={`Revoke token ${token.name}`} onClick={() => setRevoking(token)}>
        <KeyOff />
      </IconButton>
    </Tooltip>
  );

  return (
    <>
      <LoadStates error={list.error} errorText={formatUserError} onRetry={() => void list.refetch()} pending={list.isPending} loadingLabel="Loading API tokens" />
      {list.data && tokens.length === 0 && <Typography color="text.secondary" sx={{ p: 3, textAlign: 'center' }}>{empty}</Typography>}
      {tokens.length > 0 &&
        (phone ? (
          <PhoneCardList label="API tokens">
            {tokens.map((token) => (
              <PhoneCard key={token.id} label={token.name} actions={actions(token)}>
                <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{token.name}</Typography>
                {owner === 'all' && <Typography variant="body2" color="text.secondary">{whose(token)}</Typography>}
                <Typography variant="body2">{`${SCOPE_LABELS[token.scope]} · ${projectsText(token)}`}</Typography>
                <Typography variant="body2" color="text.secondary">{`Expires: ${expiryText(token)}`}</Typography>
                <Typography variant="body2" color="text.secondary">{`Last used: ${lastUsedText(token)}`}</Typography>
                <Typography variant="body2" color="text.secondary">{`Created: ${formatDate(token.created_at)}`}</Typography>
              </PhoneCard>
            ))}
          </PhoneCardList>
        ) : (
          <TableContainer>
            <Table aria-label="API tokens" size="small">
              <TableHead>
                <TableRow>
                  <TableCell>Name</TableCell>
                  {owner === 'all' && <TableCell>Owner</TableCell>}
                  <TableCell>Scope</TableCell>
                  <TableCell>Projects</TableCell>
                  <TableCell>Expires</TableCell>
                  <TableCell>Last used</TableCell>
                  <TableCell>Created</TableCell>
                  <TableCell align="right">Actions</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {tokens.map((token) => (
                  <TableRow key={token.id} hover>
                    <TableCell sx={{ fontWeight: 600, overflowWrap: 'anywhere', maxWidth: 220 }}>{token.name}</TableCell>
                    {owner === 'all' && <TableCell>{whose(token)}</TableCell>}
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{SCOPE_LABELS[token.scope]}</TableCell>
                    <TableCell sx={{ maxWidth: 220, overflowWrap: 'anywhere' }}>{projectsText(token)}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{expiryText(token)}</TableCell>
                    <TableCell>{lastUsedText(token)}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatDate(token.created_at)}</TableCell>
                    <TableCell align="right">{actions(token)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        ))}
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke token?"
        message="Scripts using this token stop working at once. This cannot be undone: a new token would have to be made and given to them."
        detail={revoking?.name}
        confirmLabel="Revoke"
        busyLabel="Revoking..."
        busy={revoke.isPending}
        onConfirm={() => void confirmRevoke()}
        onClose={() => setRevoking(null)}
      />
    </>
  );
}
