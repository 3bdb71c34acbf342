//! What every test uses: a project folder and the real binary (`util`), the real servers of the
//! shared harness (`harness`), real `git` (`git`), and the generated test images.

pub mod git;
pub mod harness;
pub mod image_gen;
pub mod image_hostile;
pub mod util;
