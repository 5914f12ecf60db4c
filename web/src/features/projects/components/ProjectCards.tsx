import type { TListedProject, TProject } from '@portal/contract';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import { LocalDate } from '../../../components/LocalDate';
import { PhoneCard, PhoneCardList } from '../../../components/PhoneCardList';
import { ProjectActions } from './ProjectActions';
import { LastUpload } from './LastUpload';

interface ProjectCardsProps {
  projects: TListedProject[];
  showCompany: boolean;
  onEdit: (project: TProject) => void;
  onDelete: (project: TProject) => void;
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** Below the `sm` breakpoint each project is a card: name, counts, dates and its actions in view. */
export function ProjectCards({ projects, showCompany, onEdit, onDelete }: ProjectCardsProps) {
  return (
    <PhoneCardList label="Projects">
      {projects.map((project) => (
        <PhoneCard key={project.id} label={project.name} actions={<ProjectActions project={project} onEdit={onEdit} onDelete={onDelete} />}>
          <Link
            component={RouterLink}
            to={`/study/${project.id}`}
            underline="hover"
            sx={{ fontWeight: 600, overflowWrap: 'anywhere', display: 'inline-block', py: 0.5 }}
          >
            {project.name}
          </Link>
          {showCompany && (
            <Typography variant="body2" color="text.secondary">
              {`Company: ${project.companyname}`}
            </Typography>
          )}
          <Typography variant="body2" color="text.secondary">
            {`${plural(project.files, 'file', 'files')}, ${plural(project.studies, 'study', 'studies')}`}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {'Last upload: '}
            <LastUpload value={project.last_upload_at} />
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {'Date Created: '}
            <LocalDate value={project.created_at} />
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {'Date Updated: '}
            <LocalDate value={project.updated_at} />
          </Typography>
        </PhoneCard>
      ))}
    </PhoneCardList>
  );
}
