import CloudUpload from '@mui/icons-material/CloudUpload';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { useRef, useState, type DragEvent, type ReactNode } from 'react';
import { carriesFiles, itemsOf, type DroppedItem } from '../lib/dropped-items';

export const DROP_HINT = 'Drop files or a folder to upload them: archives and DICOM files, a folder as one delivery';

interface DropZoneProps {
  onDrop: (items: DroppedItem[]) => void;
  /** While false, a drop is refused (an upload is running) and nothing is shown. */
  enabled?: boolean;
  children: ReactNode;
}

/**
 * Takes files and folders dragged onto its children; while they are over it, a frame says what it
 * accepts. Text or links dragged over it are left to the browser.
 */
export function DropZone({ onDrop, enabled = true, children }: DropZoneProps) {
  const [over, setOver] = useState(false);
  // dragenter and dragleave fire for every child crossed: the zone is left when they even out.
  const depth = useRef(0);
  const takes = (event: DragEvent) => enabled && carriesFiles(event.dataTransfer);

  const enter = (event: DragEvent) => {
    if (!takes(event)) return;
    event.preventDefault();
    depth.current += 1;
    setOver(true);
  };
  const leave = (event: DragEvent) => {
    if (!takes(event)) return;
    depth.current = Math.max(0, depth.current - 1);
    if (depth.current === 0) setOver(false);
  };
  const overIt = (event: DragEvent) => {
    if (!takes(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  };
  const drop = (event: DragEvent) => {
    depth.current = 0;
    setOver(false);
    if (!takes(event)) return;
    event.preventDefault();
    event.stopPropagation();
    onDrop(itemsOf(event.dataTransfer));
  };

  return (
    <Box onDragEnter={enter} onDragLeave={leave} onDragOver={overIt} onDrop={drop} sx={{ position: 'relative' }}>
      {children}
      {over && (
        <Box
          role="status"
          sx={{
            position: 'absolute',
            inset: 0,
            zIndex: 2,
            display: 'flex',
            flexDirection: 'column',
            alignItems: 'center',
            justifyContent: 'center',
            gap: 1,
            p: 2,
            textAlign: 'center',
            border: 3,
            borderStyle: 'dashed',
            borderColor: 'primary.main',
            borderRadius: 2,
            bgcolor: 'background.paper',
            opacity: 0.96,
            pointerEvents: 'none',
          }}
        >
          <CloudUpload color="primary" sx={{ fontSize: 48 }} />
          <Typography color="primary" sx={{ fontWeight: 600 }}>
            {DROP_HINT}
          </Typography>
        </Box>
      )}
    </Box>
  );
}
