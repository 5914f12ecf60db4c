import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import { lazy, Suspense, useState } from 'react';
import { isReviewer } from '../../../lib/role-names';
import { useSignedInUser } from '../../auth';
import { useReviewRules } from '../api/review-api';
import { rulesWords } from '../rules-words';

const RulesDialog = lazy(() => import('./RulesDialog'));

/** The project's arrival rules in one line at its top (issue 35), with the reviewers' control to change them. */
export function RulesLine({ projectId }: { projectId: number }) {
  const user = useSignedInUser();
  const rules = useReviewRules(projectId).data;
  const [editing, setEditing] = useState(false);
  if (!rules) return null;
  return (
    <>
      <Alert
        severity="info"
        // A region of its own, named: the project's de-identification line is the page's note.
        role="region"
        aria-label="Arrival rules"
        variant="outlined"
        sx={{ mb: 2, alignItems: 'center' }}
        action={
          isReviewer(user?.role) && (
            <Button color="inherit" size="small" aria-haspopup="dialog" onClick={() => setEditing(true)} sx={{ whiteSpace: 'nowrap' }}>
              Arrival rules
            </Button>
          )
        }
      >
        {rulesWords(rules)}
      </Alert>
      {editing && (
        <Suspense fallback={null}>
          <RulesDialog projectId={projectId} rules={rules} onClose={() => setEditing(false)} />
        </Suspense>
      )}
    </>
  );
}
