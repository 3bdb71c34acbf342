//! What an image may cost, checked from its container's headers before a pixel is decoded:
//! the size of its picture and of every frame, and the pixels of all its frames together.

use super::clean::Unfit;

/// Images or frames wider or taller than this are refused.
pub const MAX_SIDE: u32 = 20_000;
/// A picture or one frame with more pixels than this is refused: one frame is decoded at a
/// time, and this bounds the memory that takes.
pub const MAX_PIXELS: u64 = 16_000_000;
/// An image whose frames decode to more pixels than this in all is refused: this bounds the
/// time decoding takes. Each frame counts at least its picture's size, since decoders draw
/// every frame onto the whole picture.
pub const MAX_TOTAL_PIXELS: u64 = 64_000_000;

/// The pixels an image's headers announce so far, refused as soon as one limit is passed.
#[derive(Debug, Default)]
pub struct Budget {
    size: (u32, u32),
    picture: u64,
    frames: u32,
    total: u64,
}

impl Budget {
    /// The picture (GIF's logical screen, PNG's IHDR, WebP's canvas, JPEG's frame).
    pub fn picture(&mut self, w: u32, h: u32) -> Result<(), Unfit> {
        self.picture = pixels("the picture", w, h)?;
        self.size = (w, h);
        Ok(())
    }

    /// One more frame, as its header announces it.
    pub fn frame(&mut self, w: u32, h: u32) -> Result<(), Unfit> {
        self.frames += 1;
        let px = pixels(&format!("frame {}", self.frames), w, h)?;
        self.total += px.max(self.picture);
        if self.total > MAX_TOTAL_PIXELS {
            return Err(Unfit::TooLarge(format!(
                "its first {} frames decode to {} megapixels in all; at most {} are allowed",
                self.frames,
                self.total / 1_000_000,
                MAX_TOTAL_PIXELS / 1_000_000
            )));
        }
        Ok(())
    }

    /// The picture's width and height.
    pub fn picture_size(&self) -> (u32, u32) {
        self.size
    }

    /// How many frames were announced.
    pub fn frames(&self) -> u32 {
        self.frames
    }
}

/// `w`×`h` as pixels, or why `what` is too large.
fn pixels(what: &str, w: u32, h: u32) -> Result<u64, Unfit> {
    let px = u64::from(w) * u64::from(h);
    if w > MAX_SIDE || h > MAX_SIDE || px > MAX_PIXELS {
        return Err(Unfit::TooLarge(format!(
            "{what} is {w}×{h} pixels; at most {} megapixels and {MAX_SIDE} pixels a side are allowed",
            MAX_PIXELS / 1_000_000
        )));
    }
    Ok(px)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_count_at_least_the_picture_and_add_up() {
        let mut b = Budget::default();
        b.picture(4000, 4000).unwrap();
        for _ in 0..4 {
            b.frame(1, 1).unwrap();
        }
        let Err(Unfit::TooLarge(why)) = b.frame(1, 1) else {
            panic!("a fifth 16-megapixel frame passed")
        };
        assert!(
            why.contains("first 5 frames decode to 80 megapixels in all"),
            "{why}"
        );
        let mut b = Budget::default();
        b.picture(10, 10).unwrap();
        let Err(Unfit::TooLarge(why)) = b.frame(10000, 10000) else {
            panic!("a 100-megapixel frame passed")
        };
        assert!(why.starts_with("frame 1 is 10000×10000 pixels"), "{why}");
        assert!(Budget::default().picture(20001, 1).is_err());
    }
}
