import DarkMode from '@mui/icons-material/DarkMode';
import LightMode from '@mui/icons-material/LightMode';
import SettingsBrightness from '@mui/icons-material/SettingsBrightness';
import IconButton from '@mui/material/IconButton';
import { useColorScheme } from '@mui/material/styles';
import { useDeferredTooltip } from './use-deferred-tooltip';

type Mode = 'light' | 'dark' | 'system';
const NEXT: Record<Mode, Mode> = { system: 'light', light: 'dark', dark: 'system' };
const ICONS = { system: SettingsBrightness, light: LightMode, dark: DarkMode };

/** Cycles system → light → dark; MUI keeps the choice under the 'mode' storage key. */
export function ColorModeToggle() {
  const { mode, setMode } = useColorScheme();
  const { Tooltip, buttonProps } = useDeferredTooltip();
  const current: Mode = mode ?? 'system';
  const Icon = ICONS[current];
  const label = `Colour mode: ${current}. Switch to ${NEXT[current]}`;
  const button = (
    <IconButton aria-label={label} onClick={() => setMode(NEXT[current])} color="inherit" {...buttonProps}>
      <Icon />
    </IconButton>
  );
  return Tooltip ? <Tooltip title={label}>{button}</Tooltip> : button;
}
