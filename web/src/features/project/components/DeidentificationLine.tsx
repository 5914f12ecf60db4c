import { ROLES, type TDeidentificationPolicy } from '@portal/contract';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import { lazy, Suspense, useState } from 'react';
import { useDeidentificationPolicy } from '../../../api/deidentification-policy';
import { deidentificationWords } from '../../../lib/deidentification-words';
import { useSignedInUser } from '../../auth';

const DeidentificationDialog = lazy(() => import('./DeidentificationDialog'));

export const KEPT_AS_SENT = 'Patient identity is kept as sent';

/**
 * The project's de-identification in one line at its top (issue 33, item 6), with the SysAdmin's
 * control to change it. `off` is said to the receiving team (SysUser, SysAdmin) only: the sending
 * company sees the project exactly as before the policy existed.
 */
export function DeidentificationLine({ projectId }: { projectId: number }) {
  const user = useSignedInUser();
  const policyQuery = useDeidentificationPolicy(projectId);
  const [editing, setEditing] = useState(false);
  const policy = policyQuery.data;
  const sysAdmin = user?.role === ROLES.SysAdmin;
  const receivingTeam = sysAdmin || user?.role === ROLES.SysUser;
  // A policy that cannot be read shows no line rather than a guess; the files and studies still do.
  if (!policy) return null;
  const text = lineText(policy, receivingTeam);
  if (text === null) return null;
  return (
    <>
      <Alert
        severity={policy.profile === 'off' ? 'warning' : 'info'}
        // A standing fact about the project, not news: read in place, not announced on every visit.
        role="note"
        sx={{ mb: 2, alignItems: 'center' }}
        action={
          sysAdmin && (
            <Button color="inherit" size="small" aria-haspopup="dialog" onClick={() => setEditing(true)} sx={{ whiteSpace: 'nowrap' }}>
              De-identification
            </Button>
          )
        }
      >
        {text}
      </Alert>
      {editing && (
        <Suspense fallback={null}>
          <DeidentificationDialog projectId={projectId} policy={policy} onClose={() => setEditing(false)} />
        </Suspense>
      )}
    </>
  );
}

function lineText(policy: TDeidentificationPolicy, receivingTeam: boolean): string | null {
  const words = deidentificationWords(policy);
  if (words !== null) return `De-identified: ${words}`;
  return receivingTeam ? KEPT_AS_SENT : null;
}
