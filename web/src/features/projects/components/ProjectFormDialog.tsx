import type { TProject } from '@portal/contract';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import TextField from '@mui/material/TextField';
import { useState, type FormEvent } from 'react';

export const NAME_REQUIRED = 'The name of the study is required';

interface ProjectFormDialogProps {
  open: boolean;
  mode: 'create' | 'edit';
  study?: TProject | null;
  onAdd: (name: string) => void;
  onEdit: (study: TProject, name: string) => void;
  onClose: () => void;
}

/** Spec §2: create or rename a project; the parent runs the call and shows its overlay. */
export function ProjectFormDialog(props: ProjectFormDialogProps) {
  const { open, onClose } = props;
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="project-form-title" maxWidth="sm" fullWidth>
      {/* Mounted per opening so the name starts from the study being edited, or empty. */}
      {open && <ProjectForm {...props} />}
    </Dialog>
  );
}

function ProjectForm({ mode, study, onAdd, onEdit, onClose }: ProjectFormDialogProps) {
  const [name, setName] = useState(mode === 'edit' ? (study?.name ?? '') : '');
  const [error, setError] = useState<string | null>(null);

  const save = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) {
      setError(NAME_REQUIRED);
      return;
    }
    if (mode === 'edit' && study) onEdit(study, trimmed);
    else onAdd(trimmed);
    setName('');
    onClose();
  };

  return (
    <form onSubmit={save} noValidate>
      <DialogTitle id="project-form-title">{mode === 'edit' ? 'Edit Project' : 'Create Project'}</DialogTitle>
      <DialogContent>
        <TextField
          label="Project Name"
          placeholder="Eg: My favorite project"
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            setError(null);
          }}
          error={Boolean(error)}
          helperText={error ?? ' '}
          autoFocus
          fullWidth
          margin="dense"
          slotProps={{ htmlInput: { maxLength: 255 } }}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" variant="contained">
          Save
        </Button>
      </DialogActions>
    </form>
  );
}
