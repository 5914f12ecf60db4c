import BrokenImageOutlined from '@mui/icons-material/BrokenImageOutlined';
import ImageOutlined from '@mui/icons-material/ImageOutlined';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { useEffect, useState } from 'react';
import { loadSeriesThumbnail, seriesThumbnailPath, type ThumbnailState } from '../lib/series-thumbnail';

/** The square each thumbnail (or its placeholder) fills, in pixels. */
const SIDE = 64;
/** How long a series still being processed is asked about again before the placeholder stays. */
const MAX_WAITS = 60;

interface SeriesThumbnailProps {
  projectId: number;
  study: string;
  series: string;
  /** Names the series for screen readers ('CT · Head'). */
  label: string;
}

const frame = {
  width: SIDE,
  height: SIDE,
  flex: `0 0 ${SIDE}px`,
  borderRadius: 1,
  bgcolor: 'action.hover',
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'center',
  overflow: 'hidden',
} as const;

/** A series' thumbnail; while it is made a neutral placeholder, and when none could be made the reason in words. */
export function SeriesThumbnail({ projectId, study, series, label }: SeriesThumbnailProps) {
  const [state, setState] = useState<ThumbnailState>({ kind: 'loading' });

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let waits = 0;
    const load = async () => {
      const next = await loadSeriesThumbnail(seriesThumbnailPath(projectId, study, series));
      if (!live) return;
      setState(next);
      if (next.kind === 'pending' && waits < MAX_WAITS) {
        waits += 1;
        timer = setTimeout(() => void load(), next.retryAfterMs);
      }
    };
    void load();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [projectId, study, series]);

  if (state.kind === 'ready') {
    return (
      <Box sx={{ ...frame, bgcolor: 'common.black' }}>
        {/* Filling the square: a small picture (a 16-pixel test slice, a 64-pixel MR) is drawn larger, whole. */}
        <img src={state.src} alt={`Thumbnail of ${label}`} style={{ width: '100%', height: '100%', objectFit: 'contain' }} />
      </Box>
    );
  }
  if (state.kind === 'failed') {
    return (
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, minWidth: 0 }}>
        <Box sx={frame} aria-hidden>
          <BrokenImageOutlined color="disabled" />
        </Box>
        <Typography variant="caption" color="text.secondary" sx={{ maxWidth: 220, overflowWrap: 'anywhere' }}>
          {state.reason}
        </Typography>
      </Box>
    );
  }
  return (
    <Box sx={frame} role="img" aria-label={state.kind === 'pending' ? `Thumbnail of ${label} is being made` : `Loading the thumbnail of ${label}`}>
      <ImageOutlined color="disabled" />
    </Box>
  );
}
