import OpenInNew from '@mui/icons-material/OpenInNew';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';

/** 'Open in viewer': a link to the OHIF viewer, in a new tab, so the portal's page stays as it was. */
export function OpenInViewerButton({ href, name }: { href: string; name: string }) {
  return (
    <Tooltip title="Open in viewer">
      <IconButton component="a" href={href} target="_blank" rel="noopener" aria-label={`Open ${name} in viewer`} color="primary">
        <OpenInNew />
      </IconButton>
    </Tooltip>
  );
}
