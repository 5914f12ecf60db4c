import type { TProject } from '@portal/contract';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import { LocalDate } from '../../../components/LocalDate';
import { ProjectActions } from './ProjectActions';

interface ProjectCardsProps {
  projects: TProject[];
  onEdit: (project: TProject) => void;
  onDelete: (project: TProject) => void;
}

/** Below the `sm` breakpoint each project is a card: name, both dates and its actions in view. */
export function ProjectCards({ projects, onEdit, onDelete }: ProjectCardsProps) {
  return (
    <Box component="ul" aria-label="Projects" sx={{ listStyle: 'none', m: 0, p: 0 }}>
      {projects.map((project) => (
        <Box
          component="li"
          key={project.id}
          aria-label={project.name}
          sx={{ display: 'flex', alignItems: 'flex-start', gap: 1, px: 2, py: 1.5, borderBottom: 1, borderColor: 'divider' }}
        >
          <Box sx={{ flex: 1, minWidth: 0 }}>
            <Link
              component={RouterLink}
              to={`/study/${project.id}`}
              underline="hover"
              sx={{ fontWeight: 600, overflowWrap: 'anywhere', display: 'inline-block', py: 0.5 }}
            >
              {project.name}
            </Link>
            <Typography variant="body2" color="text.secondary">
              {'Date Created: '}
              <LocalDate value={project.created_at} />
            </Typography>
            <Typography variant="body2" color="text.secondary">
              {'Date Updated: '}
              <LocalDate value={project.updated_at} />
            </Typography>
          </Box>
          <Box sx={{ display: 'flex', flexShrink: 0 }}>
            <ProjectActions project={project} onEdit={onEdit} onDelete={onDelete} />
          </Box>
        </Box>
      ))}
    </Box>
  );
}
