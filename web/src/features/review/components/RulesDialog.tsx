import type { TRequiredSeries, TReviewRules } from '@portal/contract';
import Add from '@mui/icons-material/Add';
import DeleteOutline from '@mui/icons-material/DeleteOutlined';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormLabel from '@mui/material/FormLabel';
import IconButton from '@mui/material/IconButton';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import { useId, useState, type FormEvent } from 'react';
import { useNotify } from '../../../components/use-notify';
import { formatUserError } from '../../../lib/error-mapping';
import { useSetReviewRules } from '../api/review-api';

interface RulesDialogProps {
  projectId: number;
  rules: TReviewRules;
  onClose: () => void;
}

type Patients = 'any' | 'exactly' | 'at_most';

const CHECKS: Array<{ key: 'one_patient_per_study' | 'consistent_patients' | 'no_conflicting_instances' | 'deidentified'; label: string }> = [
  { key: 'one_patient_per_study', label: 'One PatientID per study' },
  { key: 'consistent_patients', label: 'The same patient keeps its sex and birth date across uploads' },
  { key: 'no_conflicting_instances', label: 'No SOP Instance UID reused for another study, series or other bytes' },
  { key: 'deidentified', label: 'De-identified, where the project removes patient identity' },
];

/** The rules screen of a project (SysUser, SysAdmin): what every upload is checked against when its processing ends. */
export default function RulesDialog({ projectId, rules, onClose }: RulesDialogProps) {
  const titleId = useId();
  const phone = useMediaQuery((theme: Theme) => theme.breakpoints.down('sm'), { noSsr: true });
  const save = useSetReviewRules(projectId);
  const notify = useNotify();
  const [modalities, setModalities] = useState(rules.modalities.join(', '));
  const [patients, setPatients] = useState<Patients>(rules.patients_per_upload?.mode ?? 'any');
  const [patientCount, setPatientCount] = useState(String(rules.patients_per_upload?.count ?? 1));
  const [series, setSeries] = useState<TRequiredSeries[]>(rules.required_series);
  const [from, setFrom] = useState(rules.study_dates?.from ?? '');
  const [to, setTo] = useState(rules.study_dates?.to ?? '');
  const [checks, setChecks] = useState({
    one_patient_per_study: rules.one_patient_per_study,
    consistent_patients: rules.consistent_patients,
    no_conflicting_instances: rules.no_conflicting_instances,
    deidentified: rules.deidentified,
  });
  const [error, setError] = useState<string | null>(null);

  const changeSeries = (index: number, change: Partial<TRequiredSeries>) => setSeries(series.map((s, i) => (i === index ? { ...s, ...change } : s)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    const body: TReviewRules = {
      modalities: modalities
        .split(/[,\s]+/)
        .map((m) => m.trim().toUpperCase())
        .filter(Boolean),
      patients_per_upload: patients === 'any' ? null : { mode: patients, count: Number(patientCount) },
      required_series: series,
      study_dates: from || to ? { from: from || null, to: to || null } : null,
      ...checks,
    };
    try {
      await save.mutateAsync(body);
      notify.success('Arrival rules saved');
      onClose();
    } catch (err) {
      setError(formatUserError(err));
    }
  };

  return (
    <Dialog open onClose={save.isPending ? undefined : onClose} fullScreen={phone} fullWidth maxWidth="md" aria-labelledby={titleId}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <DialogTitle id={titleId}>Arrival rules</DialogTitle>
        <DialogContent>
          <Alert severity="info" sx={{ mb: 2 }}>
            Every upload and delivery is checked against these rules when its processing ends: it then awaits review, or needs attention when a rule fails.
          </Alert>
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 2, pt: 1 }}>
            <TextField label="Allowed modalities" helperText="Comma-separated DICOM codes (CT, MR); empty: any modality" value={modalities} onChange={(e) => setModalities(e.target.value)} />
            <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
              <TextField select label="Patients per upload" value={patients} onChange={(e) => setPatients(e.target.value as Patients)} sx={{ minWidth: 200 }}>
                <MenuItem value="any">Any number</MenuItem>
                <MenuItem value="exactly">Exactly</MenuItem>
                <MenuItem value="at_most">At most</MenuItem>
              </TextField>
              {patients !== 'any' && (
                <TextField label="Patients" type="number" value={patientCount} onChange={(e) => setPatientCount(e.target.value)} slotProps={{ htmlInput: { min: 1 } }} sx={{ width: 120 }} />
              )}
            </Box>
            <FormLabel component="legend">Required series</FormLabel>
            {series.map((s, index) => (
              <Box key={index} sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
                <TextField size="small" label="Modality" value={s.modality} onChange={(e) => changeSeries(index, { modality: e.target.value.toUpperCase() })} sx={{ width: 110 }} />
                <TextField size="small" label="Description like" helperText="* stands for any text" value={s.description} onChange={(e) => changeSeries(index, { description: e.target.value })} sx={{ flex: '1 1 180px' }} />
                <TextField
                  size="small"
                  label="At least"
                  type="number"
                  value={s.min_instances}
                  onChange={(e) => changeSeries(index, { min_instances: Number(e.target.value) })}
                  slotProps={{ htmlInput: { min: 1 } }}
                  sx={{ width: 110 }}
                />
                <IconButton aria-label={`Remove required series ${index + 1}`} onClick={() => setSeries(series.filter((_, i) => i !== index))}>
                  <DeleteOutline />
                </IconButton>
              </Box>
            ))}
            <Box>
              <Button startIcon={<Add />} onClick={() => setSeries([...series, { modality: 'MR', description: '', min_instances: 1 }])}>
                Add a required series
              </Button>
            </Box>
            <Box sx={{ display: 'flex', gap: 2, flexWrap: 'wrap' }}>
              <TextField label="Study dates from" type="date" value={from} onChange={(e) => setFrom(e.target.value)} slotProps={{ inputLabel: { shrink: true } }} />
              <TextField label="Study dates to" type="date" value={to} onChange={(e) => setTo(e.target.value)} slotProps={{ inputLabel: { shrink: true } }} />
            </Box>
            <FormGroup>
              {CHECKS.map((check) => (
                <FormControlLabel
                  key={check.key}
                  control={<Checkbox checked={checks[check.key]} onChange={(e) => setChecks({ ...checks, [check.key]: e.target.checked })} />}
                  label={check.label}
                />
              ))}
            </FormGroup>
          </Box>
          {error && (
            <Alert severity="error" sx={{ mt: 2 }}>
              {error}
            </Alert>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={save.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" disabled={save.isPending}>
            Save
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
