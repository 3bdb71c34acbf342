//! What every test uses: a project folder and the real binary (`util`), the real servers of the
//! shared harness (`harness`), real `git` (`git`), dates near today (`days`), and the generated
//! test images.

pub mod days;
pub mod git;
pub mod harness;
pub mod image_gen;
pub mod image_hostile;
pub mod util;
