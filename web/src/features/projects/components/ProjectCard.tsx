import type { TProject } from '@portal/contract';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardActions from '@mui/material/CardActions';
import CardContent from '@mui/material/CardContent';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';

/**
 * Spec §2: the generic study card. The card view cannot be selected (spec §2), so no screen
 * renders it yet; it is kept ready for when a view switch is wanted.
 */
export function ProjectCard({ project }: { project: TProject }) {
  return (
    <Card variant="outlined">
      <CardContent>
        <Typography variant="h6" component="h3">
          {project.name}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          Complete neurological study with high-resolution images
        </Typography>
      </CardContent>
      <CardActions>
        <Button component={RouterLink} to={`/study/${project.id}`} size="small">
          See details
        </Button>
      </CardActions>
    </Card>
  );
}
