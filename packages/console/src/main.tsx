import '@mantine/core/styles.css';
import './contrast.css';
import { createTheme, MantineProvider, Modal } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';

const theme = createTheme({
  primaryColor: 'indigo',
  // Shades dark enough for text on the page background (WCAG AA contrast) in both schemes.
  primaryShade: { light: 8, dark: 4 },
  defaultRadius: 'md',
  // No transitions for whoever asks the system for reduced motion.
  respectReducedMotion: true,
  components: {
    // Every dialog's close button is named for screen readers.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
  },
});
const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <MantineProvider theme={theme} defaultColorScheme="auto">
        <App />
      </MantineProvider>
    </StrictMode>,
  );
}
