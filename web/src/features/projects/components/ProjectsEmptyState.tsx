import Add from '@mui/icons-material/Add';
import FolderOpen from '@mui/icons-material/FolderOpen';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';

/**
 * Spec §2's texts for a company without projects, laid out as one state with one action: the
 * panel's title and the empty table's text used to read as two empty states, each with a button.
 */
export function ProjectsEmptyState({ onAdd }: { onAdd: () => void }) {
  return (
    <Box role="group" aria-labelledby="projects-empty-title" sx={{ textAlign: 'center', py: 5, px: 2 }}>
      <FolderOpen sx={{ fontSize: 48, color: 'text.disabled' }} aria-hidden="true" />
      <Typography id="projects-empty-title" variant="h5" component="h2">
        No projects found
      </Typography>
      <Typography variant="subtitle1" component="p" color="text.secondary">
        No studies found
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 1, mb: 2 }}>
        Create your first project to start organizing your projects.
      </Typography>
      <Button variant="contained" startIcon={<Add />} onClick={onAdd}>
        Add Study
      </Button>
    </Box>
  );
}
