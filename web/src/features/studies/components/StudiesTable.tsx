import type { TProjectStudy, TStudySort } from '@portal/contract';
import KeyboardArrowDown from '@mui/icons-material/KeyboardArrowDown';
import KeyboardArrowRight from '@mui/icons-material/KeyboardArrowRight';
import Box from '@mui/material/Box';
import Collapse from '@mui/material/Collapse';
import IconButton from '@mui/material/IconButton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TableSortLabel from '@mui/material/TableSortLabel';
import { Fragment, useState } from 'react';
import { OpenInViewerButton } from '../../../components/OpenInViewerButton';
import { studyViewerUrl } from '../../../lib/viewer-url';
import { MISSING, modalities, studyDate, studyName, type StudySort } from '../study-format';
import { StudySeries } from './StudySeries';
import { StudySources } from './StudySources';

/** Read by screen readers, not shown: the column of expand buttons needs a name, not a heading. */
const hiddenText = { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' } as const;

interface Column {
  label: string;
  /** The server sorts by these only (docs/api.md 'Finding files and studies'). */
  sort?: TStudySort;
  numeric?: boolean;
}

export const STUDY_COLUMNS: readonly Column[] = [
  { label: 'Patient Name', sort: 'patient_name' },
  { label: 'Patient ID' },
  { label: 'Study Date', sort: 'study_date' },
  { label: 'Description', sort: 'study_description' },
  { label: 'Modalities' },
  { label: 'Series', numeric: true },
  { label: 'Instances', sort: 'instances', numeric: true },
  { label: 'Sources' },
];

interface StudiesTableProps {
  projectId: number;
  studies: TProjectStudy[];
  sort: StudySort;
  onSort: (key: TStudySort) => void;
}

/** The project's studies, one row each, sortable by the columns the server sorts, each expandable to its series. */
export function StudiesTable({ projectId, studies, sort, onSort }: StudiesTableProps) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (uid: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(uid)) next.add(uid);
      return next;
    });

  return (
    <TableContainer>
      <Table aria-label="Studies" sx={{ minWidth: 900 }}>
        <TableHead>
          <TableRow>
            <TableCell padding="checkbox">
              <Box component="span" sx={hiddenText}>
                Show series
              </Box>
            </TableCell>
            {STUDY_COLUMNS.map((column) => (
              <TableCell
                key={column.label}
                align={column.numeric ? 'right' : 'left'}
                sx={{ whiteSpace: 'nowrap' }}
                sortDirection={column.sort && sort.key === column.sort ? sort.order : false}
              >
                {column.sort ? (
                  <TableSortLabel
                    active={sort.key === column.sort}
                    direction={sort.key === column.sort ? sort.order : 'asc'}
                    onClick={() => column.sort && onSort(column.sort)}
                  >
                    {column.label}
                  </TableSortLabel>
                ) : (
                  column.label
                )}
              </TableCell>
            ))}
            <TableCell padding="checkbox">
              <Box component="span" sx={hiddenText}>
                Viewer
              </Box>
            </TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {studies.map((study) => {
            const expanded = open.has(study.study_instance_uid);
            const seriesId = `series-${study.study_instance_uid}`;
            return (
              <Fragment key={study.study_instance_uid}>
                <TableRow hover sx={{ '& > td': { borderBottom: expanded ? 0 : undefined } }}>
                  <TableCell padding="checkbox">
                    <IconButton
                      size="small"
                      aria-label={`${expanded ? 'Hide' : 'Show'} series of ${studyName(study)}`}
                      aria-expanded={expanded}
                      aria-controls={seriesId}
                      onClick={() => toggle(study.study_instance_uid)}
                    >
                      {expanded ? <KeyboardArrowDown /> : <KeyboardArrowRight />}
                    </IconButton>
                  </TableCell>
                  <TableCell sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{study.patient_name ?? MISSING}</TableCell>
                  <TableCell sx={{ overflowWrap: 'anywhere' }}>{study.patient_id ?? MISSING}</TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{studyDate(study)}</TableCell>
                  <TableCell sx={{ overflowWrap: 'anywhere' }}>{study.study_description ?? MISSING}</TableCell>
                  <TableCell>{modalities(study)}</TableCell>
                  <TableCell align="right">{study.series.length}</TableCell>
                  <TableCell align="right">{study.instances}</TableCell>
                  <TableCell sx={{ maxWidth: 220 }}>
                    <StudySources sources={study.sources} />
                  </TableCell>
                  <TableCell padding="checkbox">
                    <OpenInViewerButton href={studyViewerUrl(projectId, study.study_instance_uid)} name={studyName(study)} />
                  </TableCell>
                </TableRow>
                <TableRow id={seriesId}>
                  <TableCell colSpan={STUDY_COLUMNS.length + 2} sx={{ py: 0, borderBottom: expanded ? undefined : 0 }}>
                    <Collapse in={expanded} timeout="auto" unmountOnExit>
                      <StudySeries projectId={projectId} study={study} />
                    </Collapse>
                  </TableCell>
                </TableRow>
              </Fragment>
            );
          })}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
