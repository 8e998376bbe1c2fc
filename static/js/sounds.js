/**
 * The table's optional sounds (off until the person turns them on with the status line's toggle):
 * your turn, a card played, a trick won. Made with WebAudio, so there is no sound file to fetch.
 */

let audio = null;

/** Tones (Hz) one after another, each `step` s long, at a low volume. */
function tones(frequencies, step, volume = 0.15) {
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const now = audio.currentTime;
    const length = step * frequencies.length;
    const gain = audio.createGain();
    gain.connect(audio.destination);
    gain.gain.setValueAtTime(0.0001, now);
    gain.gain.exponentialRampToValueAtTime(volume, now + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + length + 0.06);
    frequencies.forEach((frequency, i) => {
      const tone = audio.createOscillator();
      tone.frequency.value = frequency;
      tone.connect(gain);
      tone.start(now + i * step);
      tone.stop(now + step + i * step);
    });
  } catch { /* no audio here: the title and the highlight still tell */ }
}

/** Your turn: a short two-tone beep. */
export function beep() {
  tones([660, 880], 0.12);
}

/** A card put on the felt: a soft, short tick. */
function cardSound() {
  tones([320], 0.05, 0.08);
}

/** A trick won: three rising tones. */
function trickSound() {
  tones([523, 659, 784], 0.08, 0.1);
}

/** The sound a state's public events call for (at most one: a trick taken covers its card). */
export function eventSounds(events) {
  const types = new Set((events || []).map((event) => event.type));
  if (types.has("trick")) trickSound();
  else if (types.has("play")) cardSound();
}
