import type { TStudyNode } from '@portal/contract';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import Box from '@mui/material/Box';
import { SeriesThumbnail } from '../../../components/SeriesThumbnail';
import { formatDicomDate, formatDicomText } from '../../../lib/format';

/** What a study or series without a description reads as (issue 36: not 'Untitled study'). */
export const NO_DESCRIPTION = 'no description';

function studyTitle(study: TStudyNode): string {
  const parts = [formatDicomText(study.study_description) ?? NO_DESCRIPTION, formatDicomDate(study.study_date)].filter(Boolean);
  return parts.join(' · ');
}

/** Studies → series, with each series' thumbnail and its number of instances. */
export function StudyTree({ projectId, studies }: { projectId: number; studies: TStudyNode[] }) {
  if (studies.length === 0) {
    return (
      <Typography variant="body2" color="text.secondary">
        No DICOM studies were found in this upload.
      </Typography>
    );
  }
  return (
    <List aria-label="Studies" dense disablePadding>
      {studies.map((study) => (
        <ListItem key={study.study_instance_uid} disableGutters sx={{ display: 'block' }}>
          <ListItemText
            primary={studyTitle(study)}
            secondary={`Study UID ${study.study_instance_uid}`}
            slotProps={{ primary: { sx: { fontWeight: 600 } }, secondary: { sx: { wordBreak: 'break-all' } } }}
          />
          <Box sx={{ pl: 2, borderLeft: 2, borderColor: 'divider' }}>
            <List aria-label={`Series of ${studyTitle(study)}`} dense disablePadding>
              {study.series.map((series) => (
                <ListItem key={series.series_instance_uid} disableGutters sx={{ gap: 1.5, alignItems: 'flex-start' }}>
                  <SeriesThumbnail
                    projectId={projectId}
                    study={study.study_instance_uid}
                    series={series.series_instance_uid}
                    label={[series.modality, series.series_description || 'Untitled series'].filter(Boolean).join(' · ')}
                  />
                  <ListItemText
                    primary={[series.modality, formatDicomText(series.series_description) ?? NO_DESCRIPTION].filter(Boolean).join(' · ')}
                    secondary={`${series.instances} ${series.instances === 1 ? 'instance' : 'instances'}`}
                  />
                </ListItem>
              ))}
            </List>
          </Box>
        </ListItem>
      ))}
    </List>
  );
}
