import type { TProjectStudy } from '@portal/contract';
import Box from '@mui/material/Box';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { SeriesThumbnail } from '../../../components/SeriesThumbnail';
import { MISSING, studyName } from '../study-format';

/** One study's series (thumbnail, modality, description, instances) and the UID that names the study. */
export function StudySeries({ projectId, study }: { projectId: number; study: TProjectStudy }) {
  return (
    <Box sx={{ py: 1 }}>
      <Typography variant="caption" color="text.secondary" component="p" sx={{ overflowWrap: 'anywhere', mb: 0.5 }}>
        {`Study Instance UID ${study.study_instance_uid}`}
      </Typography>
      <Table size="small" aria-label={`Series of ${studyName(study)}`}>
        <TableHead>
          <TableRow>
            <TableCell>Picture</TableCell>
            <TableCell>Modality</TableCell>
            <TableCell>Series description</TableCell>
            <TableCell align="right">Instances</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {study.series.map((series) => (
            <TableRow key={series.series_instance_uid}>
              <TableCell sx={{ py: 0.5 }}>
                <SeriesThumbnail
                  projectId={projectId}
                  study={study.study_instance_uid}
                  series={series.series_instance_uid}
                  label={[series.modality, series.series_description ?? 'Untitled series'].filter(Boolean).join(' · ')}
                />
              </TableCell>
              <TableCell>{series.modality ?? MISSING}</TableCell>
              <TableCell sx={{ overflowWrap: 'anywhere' }}>{series.series_description ?? MISSING}</TableCell>
              <TableCell align="right">{series.instances}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );
}
