# drills_sim_target(<target>): build a CUDA executable or shared library to run on the simulator.
#
#   -cudart=none                 no libcudart; libdrills_cudart_sim provides the runtime instead
#   PTX for compute_80 only      the simulator executes PTX (code=compute_80: no SASS needed)
#   -compress-mode=none          PTX stored raw in the fat binary (zstd would also work)
#   -lineinfo                    .loc directives, so errors and counters name source lines
#   rpath to the library         the program runs from the build tree without LD_LIBRARY_PATH
#
# Outside CMake the same thing is:
#   nvcc -cudart=none -lineinfo -gencode arch=compute_80,code=compute_80 -compress-mode=none \
#        prog.cu -o prog -L<libdir> -ldrills_cudart_sim -Xlinker -rpath,<libdir>
#
# Apply it to every target that links CUDA objects, executables made of .cpp files included:
# otherwise CMake links libcudart_static into them.
#
# PTX_COMPRESSION <mode> picks another -compress-mode (the runtime reads none and default/zstd).
function(drills_sim_target target)
  cmake_parse_arguments(SIM "" "PTX_COMPRESSION" "" ${ARGN})
  if(NOT SIM_PTX_COMPRESSION)
    set(SIM_PTX_COMPRESSION none)
  endif()
  set_target_properties(${target} PROPERTIES
    CUDA_RUNTIME_LIBRARY None
    CUDA_ARCHITECTURES 80-virtual)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo -compress-mode=${SIM_PTX_COMPRESSION}>)
  target_link_libraries(${target} PRIVATE drills_cudart_sim)
endfunction()
