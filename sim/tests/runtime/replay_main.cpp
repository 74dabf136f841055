// The executable around libsimrt_replay_program.so: no device code of its own.
extern "C" int replay_program_main(int argc, char** argv);

int main(int argc, char** argv) { return replay_program_main(argc, argv); }
