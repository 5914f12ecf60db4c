import type { TProjectStudy } from '@portal/contract';
import ExpandLess from '@mui/icons-material/ExpandLess';
import ExpandMore from '@mui/icons-material/ExpandMore';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Collapse from '@mui/material/Collapse';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { OpenInViewerButton } from '../../../components/OpenInViewerButton';
import { studyViewerUrl } from '../../../lib/viewer-url';
import { count, MISSING, modalities, studyDate, studyName } from '../study-format';
import { StudySeries } from './StudySeries';
import { StudySources } from './StudySources';

/** Below the `sm` breakpoint each study is a card: nothing scrolls sideways, the series open below it. */
export function StudyCards({ projectId, studies }: { projectId: number; studies: TProjectStudy[] }) {
  return (
    <Box component="ul" aria-label="Studies" sx={{ listStyle: 'none', m: 0, p: 0 }}>
      {studies.map((study) => (
        <StudyCard key={study.study_instance_uid} projectId={projectId} study={study} />
      ))}
    </Box>
  );
}

function StudyCard({ projectId, study }: { projectId: number; study: TProjectStudy }) {
  const [expanded, setExpanded] = useState(false);
  const seriesId = `series-card-${study.study_instance_uid}`;
  const name = studyName(study);
  return (
    <Box component="li" aria-label={name} sx={{ px: 2, py: 1.5, borderBottom: 1, borderColor: 'divider', minWidth: 0 }}>
      <Box sx={{ display: 'flex', alignItems: 'flex-start', gap: 1 }}>
        <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere', flex: 1, minWidth: 0 }}>{study.patient_name ?? MISSING}</Typography>
        <Box sx={{ mt: -1, mr: -1 }}>
          <OpenInViewerButton href={studyViewerUrl(projectId, study.study_instance_uid)} name={name} />
        </Box>
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
        {`Patient ID: ${study.patient_id ?? MISSING}`}
      </Typography>
      <Typography variant="body2">{`${studyDate(study)} · ${modalities(study)}`}</Typography>
      {study.study_description && (
        <Typography variant="body2" sx={{ overflowWrap: 'anywhere' }}>
          {study.study_description}
        </Typography>
      )}
      <Typography variant="body2" color="text.secondary">
        {`${count(study.series.length, 'series', 'series')} · ${count(study.instances, 'instance', 'instances')}`}
      </Typography>
      <Box sx={{ display: 'flex', gap: 0.5, mt: 0.5 }}>
        <Typography variant="body2" color="text.secondary" component="span">
          From:
        </Typography>
        <Box sx={{ minWidth: 0 }}>
          <StudySources sources={study.sources} />
        </Box>
      </Box>
      <Button
        size="small"
        onClick={() => setExpanded((current) => !current)}
        aria-expanded={expanded}
        aria-controls={seriesId}
        aria-label={`${expanded ? 'Hide' : 'Show'} series of ${name}`}
        endIcon={expanded ? <ExpandLess /> : <ExpandMore />}
        sx={{ mt: 0.5, ml: -1 }}
      >
        {expanded ? 'Hide series' : 'Show series'}
      </Button>
      <Collapse in={expanded} timeout="auto" unmountOnExit id={seriesId}>
        <StudySeries projectId={projectId} study={study} compact />
      </Collapse>
    </Box>
  );
}
