import FormControlLabel from '@mui/material/FormControlLabel';
import Switch from '@mui/material/Switch';
import { useNotify } from '../../../components/use-notify';
import { serverWords, useCompanyTwoFactor, useSetCompanyTwoFactor } from '../../two-factor';

/**
 * Issue 37: a company's password users must sign in with a second factor. Shown for the company in
 * view: a CompanyAdmin's own, or the one a SysAdmin filtered the users by.
 */
export function CompanyTwoFactorSwitch({ companyId }: { companyId: number | undefined }) {
  const setting = useCompanyTwoFactor(companyId);
  if (companyId === undefined || !setting.data) return null;
  return <RequiredSwitch companyId={companyId} required={setting.data.required} />;
}

function RequiredSwitch({ companyId, required }: { companyId: number; required: boolean }) {
  const save = useSetCompanyTwoFactor(companyId);
  const notify = useNotify();
  const change = async (next: boolean) => {
    try {
      await save.mutateAsync(next);
      notify.success(next ? 'Two-factor sign-in is now required of this company’s users' : 'Two-factor sign-in is now each user’s choice');
    } catch (failure) {
      notify.error(serverWords(failure));
    }
  };
  return (
    <FormControlLabel
      control={<Switch checked={required} disabled={save.isPending} onChange={(e) => void change(e.target.checked)} />}
      label="Require two-factor sign-in"
    />
  );
}
