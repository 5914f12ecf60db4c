import type { TProjectStudy } from '@portal/contract';
import Box from '@mui/material/Box';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { Fragment } from 'react';
import { SeriesThumbnail } from '../../../components/SeriesThumbnail';
import { MISSING, studyName } from '../study-format';

interface StudySeriesProps {
  projectId: number;
  study: TProjectStudy;
  /** On a phone's card: each thumbnail on a line of its own above its series, so the table stays as narrow as the card. */
  compact?: boolean;
}

/** One study's series (thumbnail, modality, description, instances) and the UID that names the study. */
export function StudySeries({ projectId, study, compact = false }: StudySeriesProps) {
  const thumbnail = (series: TProjectStudy['series'][number]) => (
    <SeriesThumbnail
      projectId={projectId}
      study={study.study_instance_uid}
      series={series.series_instance_uid}
      label={[series.modality, series.series_description ?? 'Untitled series'].filter(Boolean).join(' · ')}
    />
  );
  return (
    <Box sx={{ py: 1 }}>
      <Typography variant="caption" color="text.secondary" component="p" sx={{ overflowWrap: 'anywhere', mb: 0.5 }}>
        {`Study Instance UID ${study.study_instance_uid}`}
      </Typography>
      <Table size="small" aria-label={`Series of ${studyName(study)}`}>
        <TableHead>
          <TableRow>
            {!compact && <TableCell>Picture</TableCell>}
            <TableCell>Modality</TableCell>
            <TableCell>Series description</TableCell>
            <TableCell align="right">Instances</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {study.series.map((series) => (
            <Fragment key={series.series_instance_uid}>
              {compact && (
                <TableRow>
                  <TableCell colSpan={3} sx={{ borderBottom: 0, pb: 0 }}>
                    {thumbnail(series)}
                  </TableCell>
                </TableRow>
              )}
              <TableRow>
                {!compact && <TableCell sx={{ py: 0.5 }}>{thumbnail(series)}</TableCell>}
                <TableCell>{series.modality ?? MISSING}</TableCell>
                <TableCell sx={{ overflowWrap: 'anywhere' }}>{series.series_description ?? MISSING}</TableCell>
                <TableCell align="right">{series.instances}</TableCell>
              </TableRow>
            </Fragment>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}
